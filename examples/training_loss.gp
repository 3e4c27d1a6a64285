# gnuplot script: the loss curve of example_08_training (make demo runs it after the example).
set terminal pngcairo size 800,450 noenhanced
set output 'training_loss.png'
set title 'staticflow: two-layer network on two spirals, sf::adam (learning rate 0.01, full batch)'
set xlabel 'epoch'
set ylabel 'softmax cross-entropy'
set grid
set key off
plot 'training_loss.tsv' using 1:2 with lines linewidth 2 linecolor rgb '#1f77b4'
